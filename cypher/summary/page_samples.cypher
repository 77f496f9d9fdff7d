// Up to $k elements of every partition of a stored summary, evenly spread over
// its elements in load order (document seq, then pre): the explorer page's
// samples, as [seq, pre, uid] (the collection stays in the server)
MATCH (u:Unit)-[:IN_PARTITION]->(s:Summary {axpre: $axpre})
WITH s, u
ORDER BY u.seq, u.pre
WITH s, collect([u.seq, u.pre, u.uid]) AS units
WITH s, units, size(units) AS n
RETURN s.sid AS sid,
       CASE WHEN n <= $k THEN units WHEN $k = 1 THEN [units[0]]
            ELSE [i IN range(0, $k - 1) | units[toInteger(i * (n - 1) / ($k - 1))]] END AS picks
