"""Machine assessors: provenance, prompts, the endpoint client and autojudge."""
