// Stored documents (and incomplete ones) with their digests, for a load
MATCH (d:Document)
RETURN d.name AS name, d.seq AS seq, d.digest AS digest, d.complete AS complete
