"""What the graph's nodes share: run settings from the runtime, model calls with retries, searches as hops."""
