"""Named entities for bridging and scoring: spaCy NER plus capitalised name spans, and mention matching."""
