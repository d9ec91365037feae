"""Planning a campaign: which documents to judge next, how many judgments are enough, and
whether the collection is fair to runs that did not build the pool. Headless (numpy, the
metrics and formats packages): the same code serves files and the stored campaign."""
