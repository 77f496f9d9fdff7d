// Stored documents and their digests, and incomplete ones (for a load)
MATCH (d)
WHERE d:Document OR d:IncompleteDocument
RETURN d.name AS name, d.seq AS seq, d.digest AS digest, labels(d) AS labels
