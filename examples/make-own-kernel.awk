# Writes the discrete BayesOpt example of the README from the first 40
# items of own-pool.csv: own-kernel.csv, their Gaussian kernel
# exp(-|x_i - x_j|² / (2·3²)) (positive semidefinite, unit diagonal), and
# own-kernel-items.csv, ids and a made-up objective to maximise,
# value = 10 exp(-|x - (4, 2, 10, -5)|² / 50) + x4 / 10.
#   awk -F, -f make-own-kernel.awk own-pool.csv
NR > 1 && NR <= 41 {
	n++
	id[n] = $1
	for (j = 1; j <= 4; j++) x[n, j] = $(j + 1)
}
END {
	print "id,value" > "own-kernel-items.csv"
	split("4 2 10 -5", c, " ")
	for (i = 1; i <= n; i++) {
		d = 0
		for (j = 1; j <= 4; j++) d += (x[i, j] - c[j]) ^ 2
		printf "%s,%.4f\n", id[i], 10 * exp(-d / 50) + x[i, 4] / 10 > "own-kernel-items.csv"
		line = ""
		for (k = 1; k <= n; k++) {
			d = 0
			for (j = 1; j <= 4; j++) d += (x[i, j] - x[k, j]) ^ 2
			line = line (k > 1 ? "," : "") sprintf("%.17g", exp(-d / 18))
		}
		print line > "own-kernel.csv"
	}
}
