package winsvc

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// environmentKey holds the system's environment variables.
const environmentKey = `SYSTEM\CurrentControlSet\Control\Session Manager\Environment`

// addToPath adds dir to the system PATH, once.
func addToPath(dir string) error {
	return editPath(func(list string) (string, bool) { return withDir(list, dir) })
}

// removeFromPath removes dir from the system PATH.
func removeFromPath(dir string) error {
	return editPath(func(list string) (string, bool) { return withoutDir(list, dir) })
}

// editPath changes the system PATH with edit, keeping its type
// (REG_EXPAND_SZ), and tells the running programs that the environment
// changed (new consoles then see it).
func editPath(edit func(string) (string, bool)) error {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, environmentKey, registry.QUERY_VALUE|registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("opening the system environment (run as an administrator): %w", err)
	}
	defer k.Close()
	list, typ, err := k.GetStringValue("Path")
	if err != nil && err != registry.ErrNotExist {
		return fmt.Errorf("reading the system PATH: %w", err)
	}
	list, changed := edit(list)
	if !changed {
		return nil
	}
	if typ == registry.SZ {
		err = k.SetStringValue("Path", list)
	} else {
		err = k.SetExpandStringValue("Path", list)
	}
	if err != nil {
		return fmt.Errorf("writing the system PATH: %w", err)
	}
	announceEnvironment()
	return nil
}

// announceEnvironment broadcasts WM_SETTINGCHANGE "Environment", waiting
// at most a second for each window.
func announceEnvironment() {
	const hwndBroadcast, wmSettingChange, smtoAbortIfHung = 0xffff, 0x001A, 0x0002
	env, _ := windows.UTF16PtrFromString("Environment")
	var result uintptr
	_, _, _ = windows.NewLazySystemDLL("user32.dll").NewProc("SendMessageTimeoutW").Call(
		hwndBroadcast, wmSettingChange, 0, uintptr(unsafe.Pointer(env)), smtoAbortIfHung, 1000, uintptr(unsafe.Pointer(&result)))
}
