"""The live plots: step time, throughput and memory per arm, pulled from numpy buffers at
about 30 Hz (`live_data`, `live_plots`), with their control row (`controls`: the x axis of
`x_axis`, smoothing of `smoothing`, a log step-time axis), the y range of `y_range`, the legend
row, readout, rank band and decimation.

Imports `common` only.
"""
