"""What a worker and the engine say to each other: every event type, phase and error kind
(`events`, whose TypedDicts are each event's fields), the names of JSON values (`types`:
`Event`, `Json`, `Listener`), the runtime shapes of events and of `session.json`
(`event_schema`, keyed by events' TypedDicts, `session_schema`, `shapes`), bounded JSON for
files from anyone (`safe_json`), an event as a line of text (`event_text`,
`compile_terms`), and every figure with a unit as every view writes it (`units`: ms, seconds,
durations, sizes, percents, ratios, counts).

The bottom floor: it imports nothing of tcprof. The worker imports it too.
"""
