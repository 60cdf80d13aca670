"""What `langgraph dev` serves beside the graph: input validation in front of the run endpoints."""
