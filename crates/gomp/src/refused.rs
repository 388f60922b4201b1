//! What this library does not implement fails loudly: a message naming it on stderr, then
//! `abort()`. Never silently wrong, and never silently handed to another runtime: every entry
//! point libgomp 12 exports that is not implemented elsewhere in this crate is defined here
//! (under `LD_PRELOAD`, an undefined one would bind to the real libgomp, whose state knows
//! nothing of our teams).

use std::io::Write as _;

/// Stops the program: `what` is not implemented.
pub(crate) fn refuse(what: &str) -> ! {
    fatal(&format!(
        "{what} is not implemented by libwelltempered_gomp (run the program without \
         LD_PRELOAD to use libgomp)"
    ))
}

/// Stops the program with `message`.
pub(crate) fn fatal(message: &str) -> ! {
    let _ = writeln!(std::io::stderr(), "welltempered-gomp: {message}");
    std::process::abort()
}

/// Defines each name as an exported function that refuses to run.
macro_rules! refused {
    ($($name:ident)*) => {$(
        /// Not implemented: stops the program with a message naming it.
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() -> ! {
            refuse(stringify!($name))
        }
    )*};
}

refused! {
    // OpenMP
    GOMP_alloc GOMP_doacross_post GOMP_doacross_ull_post GOMP_doacross_ull_wait GOMP_doacross_wait
    GOMP_free GOMP_loop_doacross_dynamic_start GOMP_loop_doacross_guided_start
    GOMP_loop_doacross_runtime_start GOMP_loop_doacross_start GOMP_loop_doacross_static_start
    GOMP_loop_ull_doacross_dynamic_start GOMP_loop_ull_doacross_guided_start
    GOMP_loop_ull_doacross_runtime_start GOMP_loop_ull_doacross_start
    GOMP_loop_ull_doacross_static_start GOMP_offload_register GOMP_offload_register_ver
    GOMP_offload_unregister GOMP_offload_unregister_ver GOMP_parallel_end
    GOMP_parallel_loop_dynamic_start GOMP_parallel_loop_guided_start
    GOMP_parallel_loop_runtime_start GOMP_parallel_loop_static_start GOMP_parallel_reductions
    GOMP_parallel_sections_start GOMP_parallel_start GOMP_scope_start GOMP_target GOMP_target_data
    GOMP_target_data_ext GOMP_target_end_data GOMP_target_enter_exit_data GOMP_target_ext
    GOMP_target_update GOMP_target_update_ext GOMP_task_reduction_remap
    GOMP_taskgroup_reduction_register GOMP_taskgroup_reduction_unregister
    GOMP_teams GOMP_teams4 GOMP_teams_reg
    GOMP_workshare_task_reduction_unregister omp_aligned_alloc omp_aligned_calloc omp_alloc
    omp_calloc omp_capture_affinity omp_destroy_allocator omp_display_affinity omp_display_env
    omp_free omp_fulfill_event omp_get_affinity_format omp_get_default_allocator omp_get_max_teams
    omp_get_teams_thread_limit omp_init_allocator
    omp_pause_resource omp_pause_resource_all omp_realloc omp_set_affinity_format
    omp_set_default_allocator omp_set_num_teams omp_set_teams_thread_limit omp_target_alloc
    omp_target_associate_ptr omp_target_disassociate_ptr omp_target_free omp_target_is_present
    omp_target_memcpy omp_target_memcpy_rect
    // Fortran bindings
    omp_capture_affinity_ omp_destroy_allocator_ omp_destroy_lock_ omp_destroy_nest_lock_
    omp_display_affinity_ omp_display_env_ omp_display_env_8_ omp_fulfill_event_
    omp_get_active_level_ omp_get_affinity_format_ omp_get_ancestor_thread_num_
    omp_get_ancestor_thread_num_8_ omp_get_cancellation_ omp_get_default_allocator_
    omp_get_default_device_ omp_get_device_num_ omp_get_dynamic_ omp_get_initial_device_
    omp_get_level_ omp_get_max_active_levels_ omp_get_max_task_priority_ omp_get_max_teams_
    omp_get_max_threads_ omp_get_nested_ omp_get_num_devices_ omp_get_num_places_
    omp_get_num_procs_ omp_get_num_teams_ omp_get_num_threads_ omp_get_partition_num_places_
    omp_get_partition_place_nums_ omp_get_partition_place_nums_8_ omp_get_place_num_
    omp_get_place_num_procs_ omp_get_place_num_procs_8_ omp_get_place_proc_ids_
    omp_get_place_proc_ids_8_ omp_get_proc_bind_ omp_get_schedule_ omp_get_schedule_8_
    omp_get_supported_active_levels_ omp_get_team_num_ omp_get_team_size_ omp_get_team_size_8_
    omp_get_teams_thread_limit_ omp_get_thread_limit_ omp_get_thread_num_ omp_get_wtick_
    omp_get_wtime_ omp_in_final_ omp_in_parallel_ omp_init_allocator_ omp_init_allocator_8_
    omp_init_lock_ omp_init_nest_lock_ omp_is_initial_device_ omp_pause_resource_
    omp_pause_resource_all_ omp_set_affinity_format_ omp_set_default_allocator_
    omp_set_default_device_ omp_set_default_device_8_ omp_set_dynamic_ omp_set_dynamic_8_
    omp_set_lock_ omp_set_max_active_levels_ omp_set_max_active_levels_8_ omp_set_nest_lock_
    omp_set_nested_ omp_set_nested_8_ omp_set_num_teams_ omp_set_num_teams_8_ omp_set_num_threads_
    omp_set_num_threads_8_ omp_set_schedule_ omp_set_schedule_8_ omp_set_teams_thread_limit_
    omp_set_teams_thread_limit_8_ omp_test_lock_ omp_test_nest_lock_ omp_unset_lock_
    omp_unset_nest_lock_
    // OpenACC
    GOACC_data_end GOACC_data_start GOACC_declare GOACC_enter_data GOACC_enter_exit_data
    GOACC_exit_data GOACC_get_num_threads GOACC_get_thread_num GOACC_parallel GOACC_parallel_keyed
    GOACC_update GOACC_wait acc_async_test acc_async_test_all acc_async_test_all_h_
    acc_async_test_h_ acc_async_wait acc_async_wait_all acc_attach acc_attach_async acc_copyin
    acc_copyin_32_h_ acc_copyin_64_h_ acc_copyin_array_h_ acc_copyin_async acc_copyin_async_32_h_
    acc_copyin_async_64_h_ acc_copyin_async_array_h_ acc_copyout acc_copyout_32_h_
    acc_copyout_64_h_ acc_copyout_array_h_ acc_copyout_async acc_copyout_async_32_h_
    acc_copyout_async_64_h_ acc_copyout_async_array_h_ acc_copyout_finalize
    acc_copyout_finalize_32_h_ acc_copyout_finalize_64_h_ acc_copyout_finalize_array_h_
    acc_copyout_finalize_async acc_create acc_create_32_h_ acc_create_64_h_ acc_create_array_h_
    acc_create_async acc_create_async_32_h_ acc_create_async_64_h_ acc_create_async_array_h_
    acc_delete acc_delete_32_h_ acc_delete_64_h_ acc_delete_array_h_ acc_delete_async
    acc_delete_async_32_h_ acc_delete_async_64_h_ acc_delete_async_array_h_ acc_delete_finalize
    acc_delete_finalize_32_h_ acc_delete_finalize_64_h_ acc_delete_finalize_array_h_
    acc_delete_finalize_async acc_detach acc_detach_async acc_detach_finalize
    acc_detach_finalize_async acc_deviceptr acc_free acc_get_cuda_stream
    acc_get_current_cuda_context acc_get_current_cuda_device acc_get_device_num
    acc_get_device_num_h_ acc_get_device_type acc_get_device_type_h_ acc_get_num_devices
    acc_get_num_devices_h_ acc_get_property acc_get_property_h_ acc_get_property_string
    acc_get_property_string_h_ acc_hostptr acc_init acc_init_h_ acc_is_present
    acc_is_present_32_h_ acc_is_present_64_h_ acc_is_present_array_h_ acc_malloc acc_map_data
    acc_memcpy_from_device acc_memcpy_from_device_async acc_memcpy_to_device
    acc_memcpy_to_device_async acc_on_device acc_on_device_h_ acc_pcopyin acc_pcreate
    acc_present_or_copyin acc_present_or_copyin_32_h_ acc_present_or_copyin_64_h_
    acc_present_or_copyin_array_h_ acc_present_or_create acc_present_or_create_32_h_
    acc_present_or_create_64_h_ acc_present_or_create_array_h_ acc_prof_lookup acc_prof_register
    acc_prof_unregister acc_register_library acc_set_cuda_stream acc_set_device_num
    acc_set_device_num_h_ acc_set_device_type acc_set_device_type_h_ acc_shutdown acc_shutdown_h_
    acc_unmap_data acc_update_device acc_update_device_32_h_ acc_update_device_64_h_
    acc_update_device_array_h_ acc_update_device_async acc_update_device_async_32_h_
    acc_update_device_async_64_h_ acc_update_device_async_array_h_ acc_update_self
    acc_update_self_32_h_ acc_update_self_64_h_ acc_update_self_array_h_ acc_update_self_async
    acc_update_self_async_32_h_ acc_update_self_async_64_h_ acc_update_self_async_array_h_
    acc_wait acc_wait_all acc_wait_all_async acc_wait_all_async_h_ acc_wait_all_h_ acc_wait_async
    acc_wait_async_h_ acc_wait_h_
    // offload plugins
    GOMP_PLUGIN_acc_default_dim GOMP_PLUGIN_acc_thread GOMP_PLUGIN_async_unmap_vars
    GOMP_PLUGIN_debug GOMP_PLUGIN_error GOMP_PLUGIN_fatal GOMP_PLUGIN_goacc_profiling_dispatch
    GOMP_PLUGIN_goacc_thread GOMP_PLUGIN_malloc GOMP_PLUGIN_malloc_cleared GOMP_PLUGIN_realloc
    GOMP_PLUGIN_target_task_completion
}

/// The `error` directive with `severity(warning)`: prints the message, as libgomp does.
///
/// # Safety
///
/// `msg` is null, or `len` bytes, or a NUL-terminated string when `len` is `usize::MAX`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_warning(msg: *const core::ffi::c_char, len: usize) {
    // SAFETY: the caller's contract.
    let text = unsafe { message(msg, len) };
    let _ = writeln!(
        std::io::stderr(),
        "welltempered-gomp: error directive encountered: {text}"
    );
}

/// The `error` directive with `severity(fatal)`: prints the message and exits with failure, as
/// libgomp does.
///
/// # Safety
///
/// As [`GOMP_warning`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_error(msg: *const core::ffi::c_char, len: usize) -> ! {
    // SAFETY: the caller's contract.
    let text = unsafe { message(msg, len) };
    let _ = writeln!(
        std::io::stderr(),
        "welltempered-gomp: fatal error: error directive encountered: {text}"
    );
    std::process::exit(1)
}

/// The text of an `error` directive's message.
///
/// # Safety
///
/// As [`GOMP_warning`].
unsafe fn message(msg: *const core::ffi::c_char, len: usize) -> String {
    if msg.is_null() {
        String::new()
    } else if len == usize::MAX {
        // SAFETY: the caller's contract: a C string.
        unsafe { core::ffi::CStr::from_ptr(msg) }
            .to_string_lossy()
            .into_owned()
    } else {
        // SAFETY: the caller's contract: `len` bytes.
        String::from_utf8_lossy(unsafe { core::slice::from_raw_parts(msg.cast::<u8>(), len) })
            .into_owned()
    }
}
