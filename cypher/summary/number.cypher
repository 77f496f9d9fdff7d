// One Summary node per partition key, numbered S1, S2, ... in load order of its
// first element, with its extent, total length, tag and up to $k sample
// elements evenly spread over its elements in load order (document seq, then
// pre: their uids and places seq * 2^32 + pre, for the explorer page), and
// IN_PARTITION from each element (the keys of summary/*.cypher, in u._part).
// The units are sorted once, before they are grouped (FalkorDB 4.16 and Neo4j
// keep that order into collect)
MATCH (u:Unit)
WHERE u._part IS NOT NULL
WITH u
ORDER BY u.seq, u.pre
WITH u._part AS part, collect(u) AS members, min(u.seq * 4294967296 + u.pre) AS first,
     sum(u.length) AS length, min(u.tag) AS tag
ORDER BY first
WITH collect([part, members, length, tag]) AS groups
UNWIND range(0, size(groups) - 1) AS i
WITH i, groups[i] AS g, size(groups[i][1]) AS n
WITH i, g, n, CASE WHEN n <= $k THEN g[1] WHEN $k = 1 THEN [g[1][0]]
                   ELSE [j IN range(0, $k - 1) | g[1][toInteger(j * (n - 1) / ($k - 1))]] END AS picks
CREATE (s:Summary {axpre: $axpre, sid: 'S' + toString(i + 1), key: g[0],
                   extent: n, length: g[2], tag: g[3],
                   samples: [u IN picks | u.uid],
                   sample_places: [u IN picks | u.seq * 4294967296 + u.pre]})
WITH s, g[1] AS members
UNWIND members AS u
CREATE (u)-[:IN_PARTITION]->(s)
RETURN count(*) AS n
