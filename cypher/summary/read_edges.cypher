// A stored summary's edges S -> T (partition numbers: 1 for S1) with their
// count and length, $k a row as parallel lists (read_partitions.cypher says why)
MATCH (s:Summary {axpre: $axpre})-[e:SUMMARY_EDGE]->(t:Summary {axpre: $axpre})
WITH collect(toInteger(substring(s.sid, 1))) AS source,
     collect(toInteger(substring(t.sid, 1))) AS target,
     collect(e.count) AS count, collect(e.length) AS length
UNWIND range(0, size(source) - 1, $k) AS i
RETURN source[i..i + $k] AS source, target[i..i + $k] AS target,
       count[i..i + $k] AS count, length[i..i + $k] AS length
