// The elements in each combination of partitions of some stored summaries (a
// partition of each), counted: the explorer page's refinements
MATCH (u:Unit {kind: 0})-[:IN_PARTITION]->(s:Summary)
WHERE s.axpre IN $names
WITH u, collect(s.axpre + ' ' + s.sid) AS parts
RETURN parts, count(*) AS n
