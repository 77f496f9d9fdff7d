// Up to $k elements of every partition of some stored summaries, evenly spread
// over its elements in load order (document seq, then pre): the explorer
// page's samples, as [seq, pre, uid] (the collection stays in the server), for
// partitions that did not keep theirs (summary/number.cypher).  The
// units are sorted once, before the partitions are matched (FalkorDB 4.16 keeps
// that order into collect; sorting the unit-partition pairs takes 2.4x longer)
MATCH (u:Unit {kind: 0})
WITH u
ORDER BY u.seq, u.pre
MATCH (u)-[:IN_PARTITION]->(s:Summary)
WHERE s.axpre IN $names
WITH s, collect(u) AS units
WITH s, units, size(units) AS n
WITH s, CASE WHEN n <= $k THEN units WHEN $k = 1 THEN [units[0]]
             ELSE [i IN range(0, $k - 1) | units[toInteger(i * (n - 1) / ($k - 1))]] END AS picks
RETURN s.axpre AS axpre, s.sid AS sid, [u IN picks | [u.seq, u.pre, u.uid]] AS picks
