// The stored (complete) documents in load order
MATCH (d:Document)
WHERE d.complete
RETURN d.name AS name, d.source AS source, d.kind AS kind, d.length AS length,
       d.count AS count, d.seq AS seq
ORDER BY seq
