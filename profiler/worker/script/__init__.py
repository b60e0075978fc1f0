"""The worker's side of a user's training script run unchanged: the script's own loop driven
block by block (driver, run, steps, clock), its compiles and graph breaks watched (compiles,
insight, hooks), its files, ranks, errors and loss parity. Imports nothing itself, so loading
one module never loads the others first."""
