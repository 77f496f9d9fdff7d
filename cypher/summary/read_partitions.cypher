// A stored summary's partitions (extent, length, tag, key, weighting, steady
// state π) and the sample elements each kept (summary/number.cypher; null for a
// summary built before partitions kept them): uids and places seq * 2^32 + pre.
// A row holds a run of partitions as parallel lists, with their numbers (1 for
// S1): one row a partition costs the client 5x the CPU.  A row holds at most
// $budget bytes (FalkorDB 4.16 never answers a Bolt record longer than one
// 64 KiB chunk): the widest partition, counted at 4 bytes a character (UTF-8)
// and 16 a value, sets how many go in a row
MATCH (s:Summary {axpre: $axpre})
WITH s, toInteger(substring(s.sid, 1)) AS n, coalesce(s.samples, []) AS picks
WITH collect(s) AS parts, collect(n) AS sids,
     max(4 * (size(s.key) + size(coalesce(s.tag, '')) + size(coalesce(s.weight, ''))
              + reduce(c = 0, uid IN picks | c + size(uid)))
         + 16 * (9 + 2 * size(picks))) AS widest
WITH parts, sids, CASE WHEN widest < $budget THEN $budget / widest ELSE 1 END AS k
UNWIND range(0, size(parts) - 1, k) AS i
WITH parts[i..i + k] AS run, sids[i..i + k] AS sid
RETURN sid, [s IN run | s.key] AS key, [s IN run | s.tag] AS tag,
       [s IN run | s.extent] AS extent, [s IN run | s.length] AS length,
       [s IN run | s.weight] AS weight, [s IN run | s.pi] AS pi,
       [s IN run | s.samples] AS samples, [s IN run | s.sample_places] AS places
