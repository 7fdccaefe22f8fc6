// retrofi rule 0103-class-register-const
// must-match: yes
// needed-from: 7.3
//   (the 6.12 source's mac80211_hwsim makes its class with class_create()
//   into a struct class *; 7.3's hwsim_class is a static const struct
//   class, "mac80211_hwsim: change hwsim_class to a const struct",
//   posted in April 2026; 7.2's form is not checked here)
// upstream: "driver core: class: make class_register() take a const *"
//   (v6.4), with class_unregister() and device_create() taking a const
//   struct class * in the same release, so that a driver's class can be a
//   static const structure in read-only memory.
// targets: kernels whose class_register() takes a struct class * (real
//   targets 6.1 and 5.10); decided by the compile probe
//   class_register_const (compat/probes.list), not a version
// why: there, passing the const class to class_register(),
//   class_unregister() or device_create() discards the qualifier
//   (-Wdiscarded-qualifiers, which fails the build), and a cast would not
//   do: the older class_register() writes the class's private pointer
//   into the structure, which must not be in read-only memory. A header
//   cannot change the driver's declaration, so the class is declared
//   without const where the target's functions take it so; the
//   initialiser is the same. A signature is structural: the API level
//   never picks the form.
// RETROFI_HAVE_class_register_const comes from <retrofi/probes.h>,
// force-included through include/retrofi/version.h; a name missing from
// compat/probes.list is a -Wundef warning, which fails the build.

@@
identifier cls;
initializer I;
@@
+#if RETROFI_HAVE_class_register_const
 static const struct class cls = I;
+#else
+static struct class cls = I;
+#endif
