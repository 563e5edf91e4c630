"""Extensions, discovered and loaded in ``setup_hook``: one per game plus match, community and deadlines."""
