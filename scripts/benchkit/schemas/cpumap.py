"""What make answer writes beside its cell document, where the run that writes it and the report that prints it
both read it."""

# the answer pooled with the earlier sessions (ANSWER_WITH) where there are any, beside the run's own document
POOLED = "answer-pooled.json"
