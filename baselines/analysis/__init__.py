"""The analysis: from run records to a comparison, with no I/O beyond reading records.

The table of runs (`table`, its Arrow store and column kernels), which
groups are compared (`group_selection`), the compare step (`comparing`,
`compare_options`, `screen`, `pairing`) and what it returns
(`comparison`), the statistics (`stats`, `betting`, `arm_intervals`),
anytime metrics (`anytime`) and the gate (`gate`, `sequential`).
It imports only the core.
"""
