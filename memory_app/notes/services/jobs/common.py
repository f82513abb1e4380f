"""What the notes jobs share."""

BATCH = 500  # notes per batch: a progress report (and a chance to cancel) after each
