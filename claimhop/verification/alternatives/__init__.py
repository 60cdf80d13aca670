"""What only the verifiers beside the default use (verifier=facts, qa, single): per-pair label probabilities
(`nli`), the fact-by-fact pipeline and its rule (`pipeline`, `ensemble`, `alignment`), questions and their answers
(`qa`, `questions`), and the single call's evidence sentences (`evidence`). The default verifier needs none of it."""
