# The "lab" of the README's "Chemists: your own library" workflow: reads
# library.csv, then the batch `qvs as suggest --format csv` printed (stdin,
# columns rank,index,id,...), and prints one line id,label per suggested
# molecule: 1 (active) when its fingerprint has bits 0-3 all set, else 0.
#   qvs as suggest ... --format csv | awk -F, -f assay.awk library.csv - >> my-labels.csv
FNR == 1 { next }
NR == FNR { fp[$1] = $2; next }
{ print $3 "," (substr(fp[$3], 1, 4) == "1111" ? 1 : 0) }
