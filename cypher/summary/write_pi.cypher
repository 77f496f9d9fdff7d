// The steady state π of each partition (an integer or 'MpE' for M * 2^E, read
// exactly) and the weighting it was computed under
UNWIND $parts AS part
MATCH (s:Summary {axpre: $axpre, sid: part.sid})
SET s.pi = CASE WHEN part.pi CONTAINS 'p'
                THEN toInteger(split(part.pi, 'p')[0]) * 2.0 ^ toInteger(split(part.pi, 'p')[1])
                ELSE toFloat(toInteger(part.pi)) END,
    s.weight = $weight, s.tag = part.tag
