"""What several test files share: independent reference implementations, small word lists,
processes."""
