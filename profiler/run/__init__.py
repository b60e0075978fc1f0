"""Running a session: one recorded run from its folder to its saved files (`recorded`), the
schedule of rounds and blocks and the accuracy pass (`runner`), one round's worker processes
(`arm_supervisor`), compile cache folders per round (`cache_plan`), debug artefact folders, the
advice runs, how long a run will take and how far it has got.

Imports every engine floor below it (`remote`, `distributed`, `process`, `store`, `session`,
`analysis`, `config`, `protocol`), never `report`, `trackers`, `recording` or the doors above.
"""
