"""The live plots: step time, throughput and memory per arm, pulled from numpy buffers at
about 30 Hz (`live_data`, `live_plots`), with their legend row, readout, rank band and
decimation.

Imports `common` only.
"""
