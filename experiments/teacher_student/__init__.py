"""Teacher-student check of separation-rank capacity (issue 15); see README.md."""
