"""Generated answers, nugget banks and nugget assignments (README.md)."""
