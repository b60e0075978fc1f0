"""A distributed arm: torchrun and its ranks as one worker (`torchrun_worker`), the ranks'
events merged into one stream (`rank_merge`), and several nodes (`node_leader`,
`node_follower`, `node_launch`).

Imports `process`, `config` and `protocol`.
"""
