"""Evidence for the verdict: sentences quoted verbatim from selected documents, and the citation check."""
