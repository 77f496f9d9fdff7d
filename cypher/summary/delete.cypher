// Drop a stored summary (its Summary nodes, IN_PARTITION and SUMMARY_EDGE relationships)
MATCH (s:Summary {axpre: $axpre})
DETACH DELETE s
