package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The systems make dist builds for besides Linux, and the file each
// archive holds the binary as.
var others = []struct{ goos, exe, ext string }{
	{"darwin", "orgsync", ".tar.gz"},
	{"windows", "orgsync.exe", ".zip"},
}

// otherName is the binary make dist builds for goos and arch.
func otherName(version, goos, arch string) string {
	name := fmt.Sprintf("orgsync-%s-%s-%s", version, goos, arch)
	if goos == "windows" {
		name += ".exe"
	}
	return name
}

// archive puts the binary make dist built for goos and arch into its
// archive in dir (orgsync-VERSION-darwin-ARCH.tar.gz holding orgsync,
// orgsync-VERSION-windows-ARCH.zip holding orgsync.exe), removes the bare
// binary and returns the archive's path.
func archive(version, dir, goos, exe, ext, arch string) (string, error) {
	bin := filepath.Join(dir, otherName(version, goos, arch))
	data, err := os.ReadFile(bin)
	if err != nil {
		return "", fmt.Errorf("the %s/%s binary: %w (make dist builds it)", goos, arch, err)
	}
	out := filepath.Join(dir, fmt.Sprintf("orgsync-%s-%s-%s%s", version, goos, arch, ext))
	f, err := os.Create(out)
	if err != nil {
		return "", err
	}
	if ext == ".zip" {
		err = writeZip(f, exe, data)
	} else {
		err = writeTarGz(f, exe, data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return out, os.Remove(bin)
}

// writeTarGz writes a gzipped tar of one executable file.
func writeTarGz(w io.Writer, name string, data []byte) error {
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
		return err
	}
	if _, err := tw.Write(data); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// writeZip writes a zip of one file.
func writeZip(w io.Writer, name string, data []byte) error {
	zw := zip.NewWriter(w)
	fw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mtime})
	if err != nil {
		return err
	}
	if _, err := fw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}
