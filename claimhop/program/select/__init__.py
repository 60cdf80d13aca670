"""Stage 5, the selection (node `select_documents`), whole in this folder: the candidates scored by retrieval and
by the names they match (stage.py); why a document was selected, for follow-up questions (provenance.py)."""
