"""The pair judge: a cross-encoder fine-tuned here (bench/judge_train.py) that reads both
texts of a pair and says what the second is to the first, run in numpy. See
docs/judge-model.md (the model card) and :mod:`.model`."""
