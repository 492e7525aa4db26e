"""Baseline agents for wordle_gym (the evaluation harness and agents land in later releases)."""
