"""Mondrian multidimensional k-anonymity (LeFevre, DeWitt and Ramakrishnan 2006): the
algorithm (:mod:`~pandas_anon.anonymization.mondrian.algorithm`), its recursive median cuts on
the frequency set (:mod:`~pandas_anon.anonymization.mondrian.partition`) and how each column is
cut and written (:mod:`~pandas_anon.anonymization.mondrian.dimensions`)."""
