/* SPDX-License-Identifier: GPL-2.0 */
/* Embeds the dashboards' JS and CSS (render/assets/) into the binary as NUL-terminated strings. */
	.section .rodata
	.global pwz_asset_js
	.type pwz_asset_js, @object
pwz_asset_js:
	.incbin "render/assets/dash.js"
	.byte 0
	.size pwz_asset_js, . - pwz_asset_js

	.global pwz_asset_vms_js
	.type pwz_asset_vms_js, @object
pwz_asset_vms_js:
	.incbin "render/assets/vms.js"
	.byte 0
	.size pwz_asset_vms_js, . - pwz_asset_vms_js

	.global pwz_asset_css
	.type pwz_asset_css, @object
pwz_asset_css:
	.incbin "render/assets/dash.css"
	.byte 0
	.size pwz_asset_css, . - pwz_asset_css

	.section .note.GNU-stack, "", @progbits
