"""Full-domain k-anonymity algorithms, one module each behind one small interface:
``search(evaluator, metric) -> Search``."""
