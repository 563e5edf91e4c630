"""What several extensions share, as python-discord's ``bot/utils``: naming members in messages, converters of
options, the persistent buttons, boards as messages, posting to a match's thread, the computer's turn, and the
queues of heavy work. Nothing here imports an extension."""
