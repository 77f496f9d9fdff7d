// Readable c* keys: tag(child partitions), the children's partitions read off the
// summary edges (every element of a c* partition has the same ones)
MATCH (s:Summary {axpre: $axpre})
OPTIONAL MATCH (s)-[:SUMMARY_EDGE]->(t:Summary)
WITH s, t
ORDER BY toInteger(substring(t.sid, 1))
WITH s, collect(t.sid) AS kids
SET s.key = s.tag + '(' + reduce(k = '', x IN kids | k + CASE WHEN k = '' THEN '' ELSE ',' END + x) + ')'
