"""A rules package with one rule, written as the README's "Adding a rule" says: tests/lint/test_registry.py
discovers it and runs it through the same checks as the shipped rules."""
