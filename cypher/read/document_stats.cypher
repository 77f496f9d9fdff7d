// Per document kind: stored documents and their total length
MATCH (d:Document)
WHERE d.complete
RETURN d.kind AS kind, count(d) AS documents, sum(d.length) AS length
ORDER BY kind
