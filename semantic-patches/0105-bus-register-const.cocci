// retrofi rule 0105-bus-register-const
// must-match: yes
// needed-from: 7.2
//   (lib/kunit/device.c's kunit_bus_type, copied from sources 7.2 and
//   newer, is a static const struct bus_type)
// upstream: "driver core: bus: constify bus_register()" and its
//   bus_unregister(), with struct device::bus and struct
//   device_driver::bus becoming const struct bus_type * (v6.4, titles
//   not verified), so that a bus type can be a static const structure in
//   read-only memory.
// targets: kernels whose bus_register() takes a struct bus_type * (real
//   targets 6.1 and 5.10); decided by the compile probe
//   bus_register_const (compat/probes.list), not a version
// why: there, passing the const bus type to bus_register(),
//   bus_unregister() or storing it in a device's or driver's bus
//   discards the qualifier (-Wdiscarded-qualifiers, which fails the
//   build), and a cast would not do: the older bus_register() writes the
//   bus's private pointer (bus->p) into the structure, which must not be
//   in read-only memory. A header cannot change the declaration, so the
//   bus type is declared without const where the target's functions take
//   it so; the initialiser is the same. A signature is structural: the
//   API level never picks the form.
// RETROFI_HAVE_bus_register_const comes from <retrofi/probes.h>,
// force-included through include/retrofi/version.h; a name missing from
// compat/probes.list is a -Wundef warning, which fails the build.

@@
identifier bus;
initializer I;
@@
+#if RETROFI_HAVE_bus_register_const
 static const struct bus_type bus = I;
+#else
+static struct bus_type bus = I;
+#endif
