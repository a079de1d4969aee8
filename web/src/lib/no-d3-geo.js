// What the bundle gives Observable Plot in place of d3-geo (vite.config.js's resolve.alias): Plot imports d3-geo's map
// projections, geoPath and its clip helpers at the top of plot.js, so the bundler keeps all of d3-geo (about 9 KB gzip
// of the 55 KB Plot chunk) though Plot calls them only for a mark with a `projection`, a geo mark, a centroid
// transform or a clip of a GeoJSON shape. No view of posenc draws a map, so none is reached; were one, it would throw
// this error rather than draw nothing. geoTransform is d3-geo's own (Plot calls it as its module loads).
function unavailable(name) {
  return () => {
    throw new Error(`d3-geo's ${name} is not bundled with posenc (no view draws a map projection): see web/src/lib/no-d3-geo.js`);
  };
}

export const geoAlbers = unavailable('geoAlbers');
export const geoAlbersUsa = unavailable('geoAlbersUsa');
export const geoAzimuthalEqualArea = unavailable('geoAzimuthalEqualArea');
export const geoAzimuthalEquidistant = unavailable('geoAzimuthalEquidistant');
export const geoCentroid = unavailable('geoCentroid');
export const geoClipRectangle = unavailable('geoClipRectangle');
export const geoConicConformal = unavailable('geoConicConformal');
export const geoConicEqualArea = unavailable('geoConicEqualArea');
export const geoConicEquidistant = unavailable('geoConicEquidistant');
export const geoEqualEarth = unavailable('geoEqualEarth');
export const geoEquirectangular = unavailable('geoEquirectangular');
export const geoGnomonic = unavailable('geoGnomonic');
export const geoGraticule = unavailable('geoGraticule');
export const geoGraticule10 = unavailable('geoGraticule10');
export const geoMercator = unavailable('geoMercator');
export const geoOrthographic = unavailable('geoOrthographic');
export const geoPath = unavailable('geoPath');
export const geoStereographic = unavailable('geoStereographic');
export const geoStream = unavailable('geoStream');
export { geoTransform } from '../../../node_modules/d3-geo/dist/d3-geo.mjs';
export const geoTransverseMercator = unavailable('geoTransverseMercator');
