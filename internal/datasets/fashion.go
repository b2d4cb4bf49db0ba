package datasets

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Fashion-MNIST file names in the upstream release (fashion-mnist/PROVENANCE.md).
var fashionFiles = [4]string{
	"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
	"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
}

// IDX magic numbers: 0x08 = unsigned byte data, then the number of dimensions.
const (
	idxImagesMagic = 0x00000803
	idxLabelsMagic = 0x00000801
)

// Images is a stack of equally sized greyscale images, pixels 0-255.
type Images struct {
	N, Rows, Cols int
	Pixels        []uint8 // N*Rows*Cols, image-major, row-major inside an image
}

// Pixel count of one image.
func (im *Images) Size() int { return im.Rows * im.Cols }

// openMaybeGzip opens path and, if its name ends in .gz, decompresses it.
func openMaybeGzip(path string) (io.Reader, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return bufio.NewReader(f), f.Close, nil
	}
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a gzip file: %w", path, err)
	}
	return z, func() error { z.Close(); return f.Close() }, nil
}

// readIDXHeader reads the magic number and dims big-endian uint32 sizes.
func readIDXHeader(r io.Reader, path string, magic uint32, dims int) ([]int, error) {
	hdr := make([]uint32, 1+dims)
	if err := binary.Read(r, binary.BigEndian, hdr); err != nil {
		return nil, fmt.Errorf("%s: truncated IDX header: %w", path, err)
	}
	if hdr[0] != magic {
		return nil, fmt.Errorf("%s: IDX magic number 0x%08x, expected 0x%08x", path, hdr[0], magic)
	}
	out := make([]int, dims)
	for i := range out {
		out[i] = int(hdr[1+i])
		if out[i] == 0 || out[i] > 1<<28 {
			return nil, fmt.Errorf("%s: IDX dimension %d is %d, expected 1 to 2^28", path, i, out[i])
		}
	}
	return out, nil
}

// ReadIDXImages reads an IDX3 unsigned-byte image file (optionally gzipped).
func ReadIDXImages(path string) (*Images, error) {
	r, closeFn, err := openMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	dims, err := readIDXHeader(r, path, idxImagesMagic, 3)
	if err != nil {
		return nil, err
	}
	im := &Images{N: dims[0], Rows: dims[1], Cols: dims[2]}
	if int64(im.N)*int64(im.Size()) > 1<<34 {
		return nil, fmt.Errorf("%s: %d images of %dx%d is implausibly large", path, im.N, im.Rows, im.Cols)
	}
	im.Pixels = make([]uint8, im.N*im.Size())
	if _, err := io.ReadFull(r, im.Pixels); err != nil {
		return nil, fmt.Errorf("%s: header promises %d images of %dx%d pixels, data is shorter: %w", path, im.N, im.Rows, im.Cols, err)
	}
	return im, nil
}

// ReadIDXLabels reads an IDX1 unsigned-byte label file (optionally gzipped).
func ReadIDXLabels(path string) ([]uint8, error) {
	r, closeFn, err := openMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	dims, err := readIDXHeader(r, path, idxLabelsMagic, 1)
	if err != nil {
		return nil, err
	}
	labels := make([]uint8, dims[0])
	if _, err := io.ReadFull(r, labels); err != nil {
		return nil, fmt.Errorf("%s: header promises %d labels, data is shorter: %w", path, dims[0], err)
	}
	return labels, nil
}

// ReadFashionMNIST reads the four Fashion-MNIST files in dir and returns the
// training images followed by the test images (70,000 for the real data),
// with their class labels.
func ReadFashionMNIST(dir string) (*Images, []uint8, error) {
	var all *Images
	var labels []uint8
	for part := 0; part < 2; part++ {
		ip, lp := filepath.Join(dir, fashionFiles[2*part]), filepath.Join(dir, fashionFiles[2*part+1])
		im, err := ReadIDXImages(ip)
		if err != nil {
			return nil, nil, err
		}
		lab, err := ReadIDXLabels(lp)
		if err != nil {
			return nil, nil, err
		}
		if len(lab) != im.N {
			return nil, nil, fmt.Errorf("%s has %d labels but %s has %d images", lp, len(lab), ip, im.N)
		}
		if all == nil {
			all = im
		} else {
			if im.Rows != all.Rows || im.Cols != all.Cols {
				return nil, nil, fmt.Errorf("%s: images are %dx%d, expected %dx%d like %s", ip, im.Rows, im.Cols, all.Rows, all.Cols, fashionFiles[0])
			}
			all.N += im.N
			all.Pixels = append(all.Pixels, im.Pixels...)
		}
		labels = append(labels, lab...)
	}
	return all, labels, nil
}
