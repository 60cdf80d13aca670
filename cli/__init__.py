"""The `claimhop` command line."""
