# Writes library.csv, the tiny compound library of the README's "Chemists:
# your own library" workflow: 240 made-up molecules (ids m001..m240), each a
# 128-bit fingerprint written as a '0'/'1' string, bit 0 first (as RDKit's
# ToBitString). They come from 8 scaffolds: a scaffold is a random set of
# about a quarter of the bits, and each molecule flips every bit of its
# scaffold's with probability 0.08. Scaffolds 2, 5 and 7 carry the
# "pharmacophore" bits 0-3 that assay.awk calls active. No labels: the
# assay measures them. Deterministic in any awk: Park-Miller generator.
#   awk -f make-library.awk > library.csv
function unif() { s = (16807 * s) % 2147483647; return s / 2147483647 }
BEGIN {
	s = 20261126
	for (c = 1; c <= 8; c++) {
		for (b = 0; b < 128; b++) proto[c, b] = (unif() < 0.25) ? 1 : 0
		for (b = 0; b < 4; b++) proto[c, b] = (c == 2 || c == 5 || c == 7) ? 1 : (b % 2)
	}
	print "id,fp"
	for (i = 1; i <= 240; i++) {
		c = 1 + int(8 * unif())
		fp = ""
		for (b = 0; b < 128; b++) {
			v = proto[c, b]
			if (unif() < 0.08) v = 1 - v
			fp = fp v
		}
		printf "m%03d,%s\n", i, fp
	}
}
