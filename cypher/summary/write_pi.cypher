// The steady state π of each partition and the weighting it was computed under
UNWIND $parts AS part
MATCH (s:Summary {axpre: $axpre, sid: part.sid})
SET s.pi = toFloat(part.pi), s.weight = $weight, s.tag = part.tag
