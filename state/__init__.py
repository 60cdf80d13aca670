"""Typed state, input/output schemas and run settings of the claimhop graph (state.schema, state.context), the
node table (state.steps); the lowest layer: it imports nothing of claimhop."""
