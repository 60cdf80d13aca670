"""The chat page served at /ui by `langgraph dev` (static files, no build step, nothing fetched at run time)."""
