"""Support code of the tests and the benches, one copy each: the compact hand notation and
the random playouts (builders), log documents (factories), one random-hand generator
(hands), the log mutator (mutate) and its worker target, the parsing corpus (corpus).

The benches import it as ``tests.support``; nothing here imports ``bench/``.
"""
