"""Backends: where a frequency set comes from and where rows are written back.

A backend turns a frame of its engine into a :class:`~pandas_anon.engine.frequency.FrequencySet`
(what every method reads) and keeps what it needs to map the frame's rows to combinations
again when an output is written. :mod:`~pandas_anon.engine.backends.pandas` serves pandas
frames; a distributed frame needs only the same two steps (tabulate partitions and add up
their counts; write each partition through the combinations it holds).
"""
