#!/usr/bin/env bash
# Debian packages the test suite needs besides Python: Chromium, for the chat page's browser test.
# Does nothing when it is already installed; uses sudo when not run as root.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "installed: $(/usr/bin/chromium --version)"
