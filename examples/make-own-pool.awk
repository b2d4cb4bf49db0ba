# Writes own-pool.csv, the synthetic pool of the README's "your own data"
# example: 200 candidate items (ids c001..c200) with 4 numeric features
# x1..x4, drawn around 8 cluster centres. No labels: in a real campaign you
# only know the labels you have measured (own-labels.csv).
# Deterministic in any awk: Park-Miller generator (exact in doubles).
#   awk -f make-own-pool.awk > own-pool.csv
function unif() { s = (16807 * s) % 2147483647; return s / 2147483647 }
function gauss() { return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif()) }
BEGIN {
	s = 12345
	for (c = 1; c <= 8; c++) for (j = 1; j <= 4; j++) centre[c, j] = 6 * gauss()
	print "id,x1,x2,x3,x4"
	for (i = 1; i <= 200; i++) {
		c = 1 + int(8 * unif())
		line = sprintf("c%03d", i)
		for (j = 1; j <= 4; j++) line = line sprintf(",%.4f", centre[c, j] + gauss())
		print line
	}
}
