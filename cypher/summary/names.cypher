MATCH (s:Summary)
RETURN DISTINCT s.axpre AS axpre
ORDER BY axpre
